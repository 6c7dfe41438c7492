import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** An SMTP server on 127.0.0.1 keeping every mail it is sent (tests of e-mail channels). */
export async function startSmtpCapture() {
  const mails: Array<{ to: string[]; raw: string }> = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk) => {
        raw += chunk;
      });
      stream.on("end", () => {
        // Quoted-printable breaks long lines with "=" at their end: joined again to read the links.
        mails.push({
          to: session.envelope.rcptTo.map((address) => address.address),
          raw: raw.replace(/=\r?\n/g, ""),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  return {
    mails,
    port: (smtp.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
