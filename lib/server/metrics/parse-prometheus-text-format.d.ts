// Types for the test-only parser of the Prometheus text format (the package ships none).
declare module "parse-prometheus-text-format" {
  export interface MetricFamily {
    name: string;
    help: string;
    type: string;
    metrics: Array<{
      value?: string;
      labels?: Record<string, string>;
      buckets?: Record<string, string>;
      count?: string;
      sum?: string;
    }>;
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
