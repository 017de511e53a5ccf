// Preloaded into a child process (`node --import`): appends every connection or name lookup it attempts towards a host
// off this machine to the file named by PORCHLIGHT_NETWORK_LOG, so a test can prove a command makes no network call.

import dns from "node:dns";
import { appendFileSync } from "node:fs";
import net from "node:net";

const file = process.env.PORCHLIGHT_NETWORK_LOG;
const local = (host) =>
  host === undefined || host === "" || host === "localhost" || /^127\./.test(host) || host === "::1";
const note = (what) => {
  if (file) appendFileSync(file, `${what}\n`);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === "object" && first !== null ? first : { port: first, host: args[1] };
  if (options.path === undefined && !local(options.host)) note(`connect ${options.host}:${options.port}`);
  return connect.apply(this, args);
};
const lookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  if (!local(host)) note(`lookup ${host}`);
  return lookup.call(this, host, ...rest);
};
const lookupPromise = dns.promises.lookup;
dns.promises.lookup = function (host, ...rest) {
  if (!local(host)) note(`lookup ${host}`);
  return lookupPromise.call(this, host, ...rest);
};
