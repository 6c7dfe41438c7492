/** Shows a value as indented JSON; raw model arguments that are not JSON are shown exactly as sent. */
export function JsonBlock({ value, isRaw = false }: { value: unknown; isRaw?: boolean }) {
  return (
    <pre className="json-block">{isRaw ? formatRaw(String(value)) : JSON.stringify(value, null, 2)}</pre>
  );
}

function formatRaw(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
