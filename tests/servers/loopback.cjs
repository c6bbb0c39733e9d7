// Preloaded into the npm reference servers the tests start over HTTP (NODE_OPTIONS=--require):
// a server that would listen on every interface listens on 127.0.0.1 only.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" && (args.length === 1 || typeof args[1] === "function")) {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
