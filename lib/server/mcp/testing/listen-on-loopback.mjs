// Preloaded into a test MCP server that listens on every interface by
// default (`node --import ./listen-on-loopback.mjs server.js`): every
// server it starts listens on 127.0.0.1 only, whatever host it asks for.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const [port, ...rest] = args;
    const callback = rest.find((argument) => typeof argument === "function");
    return listen.call(this, Number(port), "127.0.0.1", callback);
  }
  if (args[0] && typeof args[0] === "object")
    return listen.call(this, { ...args[0], host: "127.0.0.1" }, ...args.slice(1));
  return listen.apply(this, args);
};
