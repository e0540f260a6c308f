import type { PluginCommandHost, Transport } from "@outpost/core";

/**
 * The results transport a worker was given: `<name>://<location>` opens the installed transport of that name
 * (`s3://bucket/prefix`), anything else is a folder on the `fs` transport.
 */
export async function openResults(location: string, transport: PluginCommandHost["transport"]): Promise<Transport> {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/.exec(location);
  const [name, where] = scheme ? [scheme[1]!, scheme[2]!] : ["fs", location];
  const descriptor = await transport(name);
  return descriptor.createTransport(where);
}
