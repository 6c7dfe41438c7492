/** A CSV file to download, as every CSV route answers one: `fileName` without its `.csv`. */
export function csvAttachment(csv: string, fileName: string): Response {
  return new Response(csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${fileName}.csv"`,
    },
  });
}

/** Today's date (UTC) for a file name: `audit-2026-12-03`. */
export const today = () => new Date().toISOString().slice(0, 10);
