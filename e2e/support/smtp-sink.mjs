// A stand-in mail server for end-to-end tests without a network: SMTP on 127.0.0.1 that keeps every
// message it is sent, and an HTTP endpoint on 127.0.0.1 where a spec reads them back (e2e/43):
//   GET /messages -> [{ "to": ["ada@e2e.test"], "text": "<the message, quoted-printable decoded>" }]
// The e2e server's e-mail channel (playwright.config.ts, PLAYGROUND_NOTIFICATIONS) sends here.
// Usage: node e2e/support/smtp-sink.mjs <smtp port> <http port>
import { createServer } from "node:http";
import { SMTPServer } from "smtp-server";

const [smtpPort, httpPort] = process.argv.slice(2).map(Number);
const messages = [];

/**
 * The raw message with quoted-printable undone, so a spec can read its links and words: soft line
 * breaks joined, `=XX` bytes decoded as UTF-8. Headers and parts are left as they are.
 */
function decodeQuotedPrintable(raw) {
  const joined = raw.replace(/=\r?\n/g, "");
  return joined.replace(/(?:=[0-9A-F]{2})+/g, (encoded) =>
    Buffer.from(encoded.replace(/=/g, ""), "hex").toString("utf8"),
  );
}

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
      messages.push({
        to: session.envelope.rcptTo.map((address) => address.address),
        text: decodeQuotedPrintable(raw),
      });
      callback();
    });
  },
});

const http = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/messages") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(messages));
    return;
  }
  response.writeHead(404, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { message: "not found: GET /messages lists what was received" } }));
});

// The HTTP side answers only once SMTP listens: Playwright waits on it before starting the app server.
smtp.listen(smtpPort, "127.0.0.1", () => {
  http.listen(httpPort, "127.0.0.1", () => {
    process.stdout.write(
      `SMTP sink on 127.0.0.1:${smtpPort}, messages at http://127.0.0.1:${httpPort}/messages\n`,
    );
  });
});
