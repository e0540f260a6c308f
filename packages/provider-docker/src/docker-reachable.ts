import { connect } from "node:net";

/** True when the Docker engine's socket (DOCKER_HOST, else /var/run/docker.sock) accepts a connection within 300 ms. */
export function dockerReachable(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  const path = host?.startsWith("unix://") ? host.slice("unix://".length) : host ? undefined : "/var/run/docker.sock";
  const url = host && !path ? new URL(host.replace(/^tcp:/, "http:")) : undefined;
  return new Promise((done) => {
    const socket = path ? connect({ path }) : connect({ host: url!.hostname, port: Number(url!.port || 2375) });
    const finish = (value: boolean): void => {
      socket.destroy();
      done(value);
    };
    socket.setTimeout(300, () => finish(false));
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
  });
}
