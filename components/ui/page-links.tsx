import Link from "next/link";

/**
 * "First page" and "Next page" of a keyset-paged list: the next page's link
 * keeps the filters and adds where it starts.
 */
export function PageLinks({
  path,
  filters,
  next,
  isFirstPage,
}: {
  path: string;
  /** The list's filters as query parameters (empty ones left out). */
  filters: Record<string, string | undefined>;
  /** The parameter that starts the next page (`{ after: cursor }`), or null on the last page. */
  next: Record<string, string> | null;
  isFirstPage: boolean;
}) {
  const href = (extra: Record<string, string>) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...filters, ...extra })) if (value) query.set(key, value);
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };
  if (isFirstPage && !next) return null;
  return (
    <nav className="page-links" aria-label="Pages">
      {!isFirstPage && <Link href={href({})}>First page</Link>}
      {next && <Link href={href(next)}>Next page</Link>}
    </nav>
  );
}
