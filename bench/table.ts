/** One measured figure: its samples, what it is compared with, and the target it must meet. */
export interface Row {
  figure: string;
  samples: number[];
  /** A figure measured in the same run that this one is divided by (the ratio column). */
  anchor?: { name: string; value: number };
  target?: { max?: number; maxRatio?: number; maxP99?: number; maxMedian?: number };
}

export function summarize(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest rank: the p99 of 100 samples is the 99th, not the largest.
  const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
  return { min: sorted[0] ?? Number.NaN, median: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

/** One figure as a line: `figure: median … p99 … max … ms`, for the benches' quick looks. */
export function summaryLine(figure: string, samples: readonly number[]): string {
  const { median, p99, max } = summarize(samples);
  return `${figure}: median ${median.toFixed(2)} p99 ${p99.toFixed(2)} max ${max.toFixed(2)} ms\n`;
}

const format = (value: number) =>
  Number.isNaN(value) ? "–" : value >= 100 ? value.toFixed(0) : value.toFixed(2);

/** Whether a row meets its target, and the target as words. */
function judge(row: Row): { target: string; met: boolean | null } {
  const stats = summarize(row.samples);
  const { target } = row;
  if (!target) return { target: "", met: null };
  if (target.maxRatio !== undefined && row.anchor) {
    return { target: `ratio ≤ ${target.maxRatio}`, met: stats.median / row.anchor.value <= target.maxRatio };
  }
  if (target.maxP99 !== undefined)
    return { target: `p99 ≤ ${target.maxP99}`, met: stats.p99 <= target.maxP99 };
  if (target.maxMedian !== undefined)
    return { target: `median ≤ ${target.maxMedian}`, met: stats.median <= target.maxMedian };
  if (target.max !== undefined) return { target: `median ≤ ${target.max}`, met: stats.median <= target.max };
  return { target: "", met: null };
}

/** Prints every row as one table; returns how many rows missed their target. */
export function printTable(
  rows: readonly Row[],
  context: {
    repetitions: number;
    /** What else kept the machine busy, said under the title. */
    machine?: string;
  },
): number {
  const header = ["figure", "min", "median", "p99", "max", "ratio", "target", ""];
  const lines = rows.map((row) => {
    const stats = summarize(row.samples);
    const { target, met } = judge(row);
    const ratio = row.anchor ? `${format(stats.median / row.anchor.value)} ${row.anchor.name}` : "";
    return [
      row.figure,
      format(stats.min),
      format(stats.median),
      format(stats.p99),
      format(stats.max),
      ratio,
      target,
      met === null ? "" : met ? "ok" : "MISSED",
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)),
  );
  const print = (cells: string[]) =>
    process.stdout.write(
      `${cells
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd()}\n`,
    );
  process.stdout.write(
    `\nnpm run bench — ${new Date().toISOString()}, ${context.repetitions} repetitions per shape\n` +
      `${context.machine ? `${context.machine}\n` : ""}\n`,
  );
  print(header);
  print(widths.map((width) => "-".repeat(width)));
  for (const line of lines) print(line);
  const missed = lines.filter((line) => line[7] === "MISSED").length;
  process.stdout.write(
    `\n${missed === 0 ? "every target met" : `${missed} target${missed === 1 ? "" : "s"} missed`}\n`,
  );
  return missed;
}
