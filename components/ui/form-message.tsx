/** What a form's last submission came to: a confirmation, or a refusal read out as an alert. */
export interface FormMessageValue {
  kind: "ok" | "error";
  text: string;
}

export function FormMessage({ message }: { message: FormMessageValue | null }) {
  if (!message) return null;
  return (
    <p
      className={message.kind === "error" ? "alert" : "notice"}
      role={message.kind === "error" ? "alert" : "status"}
    >
      {message.text}
    </p>
  );
}
