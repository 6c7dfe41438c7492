import { diffLines } from "diff";
import { useId } from "react";

/**
 * A line diff of two texts, each line marked "+ ", "- " or "  " (the marks say
 * what changed; the tint only helps the eye), in a figure with a caption.
 */
export function LineDiff({ before, after, caption }: { before: string; after: string; caption: string }) {
  const captionId = useId();
  return (
    <figure className="line-diff" aria-labelledby={captionId}>
      <figcaption id={captionId}>{caption}</figcaption>
      <pre>
        {diffParts(diffLines(before, after)).map(({ key, text, kind }) => {
          const Tag = kind === "added" ? "ins" : kind === "removed" ? "del" : "span";
          return (
            <Tag key={key} className={`diff-${kind}`}>
              {text}
            </Tag>
          );
        })}
      </pre>
    </figure>
  );
}

/** A line diff's parts as marked lines, each keyed by where it starts. */
function diffParts(changes: ReturnType<typeof diffLines>) {
  let line = 0;
  return changes.map((change) => {
    const kind = change.added ? "added" : change.removed ? "removed" : "same";
    const mark = change.added ? "+" : change.removed ? "-" : " ";
    const lines = change.value.replace(/\n$/, "").split("\n");
    const key = `${kind}-${line}`;
    line += lines.length;
    return { key, kind, text: lines.map((text) => `${mark} ${text}\n`).join("") };
  });
}
