import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar } from "@visx/shape";

/** One bar per label, one colour per series; drawn on the server as plain SVG (no chart code reaches the browser). */
export interface BarChartProps {
  /** What the chart shows, for people who cannot see it; its numbers are in the table beside it. */
  description: string;
  labels: string[];
  series: Array<{ name: string; values: number[]; className: string }>;
  /** How a value is written on the axis. */
  format?: (value: number) => string;
  orientation: "columns" | "rows";
  /** The value axis reaches at least this far (a duration axis of a few ms would read "0 ms, 0 ms, 1 ms"). */
  atLeast?: number;
}

const WIDTH = 520;
const MARGIN = { top: 8, right: 12, bottom: 28, left: 110 };

export function BarChart({
  description,
  labels,
  series,
  format = String,
  orientation,
  atLeast = 1,
}: BarChartProps) {
  if (labels.length === 0) return <p className="muted">Nothing to chart in this range.</p>;
  const rows = orientation === "rows";
  const height = rows ? Math.max(80, labels.length * series.length * 16 + labels.length * 8 + 40) : 200;
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = height - MARGIN.top - MARGIN.bottom;
  const largest = Math.max(atLeast, ...series.flatMap((one) => one.values));
  const band = scaleBand<string>({
    domain: labels,
    range: [0, rows ? innerHeight : innerWidth],
    padding: 0.2,
  });
  const value = scaleLinear<number>({
    domain: [0, largest],
    range: rows ? [0, innerWidth] : [innerHeight, 0],
    nice: true,
  });
  const slot = band.bandwidth() / Math.max(1, series.length);
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      role="img"
      aria-label={`${description} (the numbers are in the table beside it)`}
      className="bar-chart"
    >
      <Group left={MARGIN.left} top={MARGIN.top}>
        {series.map((one, seriesIndex) =>
          one.values.map((amount, index) => {
            const label = labels[index] ?? "";
            const offset = (band(label) ?? 0) + seriesIndex * slot;
            return rows ? (
              <Bar
                key={`${one.name}-${label}`}
                x={0}
                y={offset}
                width={value(amount)}
                height={slot}
                className={one.className}
              />
            ) : (
              <Bar
                key={`${one.name}-${label}`}
                x={offset}
                y={value(amount)}
                width={slot}
                height={innerHeight - value(amount)}
                className={one.className}
              />
            );
          }),
        )}
        {rows ? (
          <>
            <AxisLeft scale={band} axisClassName="chart-axis" hideTicks />
            <AxisBottom
              top={innerHeight}
              scale={value}
              numTicks={4}
              tickFormat={(v) => format(Number(v))}
              axisClassName="chart-axis"
            />
          </>
        ) : (
          <>
            <AxisLeft
              scale={value}
              numTicks={4}
              tickFormat={(v) => format(Number(v))}
              axisClassName="chart-axis"
            />
            <AxisBottom
              top={innerHeight}
              scale={band}
              axisClassName="chart-axis"
              hideTicks
              // Every label would overlap on a long range: every few.
              tickValues={labels.filter((_, index) => index % Math.ceil(labels.length / 6) === 0)}
            />
          </>
        )}
      </Group>
    </svg>
  );
}
