import { createServer } from "node:net";

/** A port nothing on 127.0.0.1 listens on right now: the OS picks it (a fixed port fails whenever something holds it). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
