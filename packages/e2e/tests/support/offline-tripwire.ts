import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";

/** Set by `scripts/offline.sh`: the run is inside a network namespace with only loopback. */
export function insideOfflineNamespace(): boolean {
  return process.env["OUTPOST_OFFLINE_NAMESPACE"] === "1";
}

/**
 * Throws at collection time when `OUTPOST_REQUIRE_OFFLINE=1` and the suite is not running under
 * `scripts/offline.sh`, so CI cannot silently run the agent CLIs with a network.
 */
export function requireOfflineWhenAsked(): void {
  if (process.env["OUTPOST_REQUIRE_OFFLINE"] === "1" && !insideOfflineNamespace()) {
    throw new Error(
      "OUTPOST_REQUIRE_OFFLINE=1 but the suite is not running in the offline namespace: run it through packages/e2e/scripts/offline.sh.",
    );
  }
}

/** Interfaces other than loopback that are up; empty inside the namespace. */
export function nonLoopbackInterfaces(): string[] {
  return Object.entries(networkInterfaces())
    .filter(([, addresses]) => (addresses ?? []).some((address) => !address.internal))
    .map(([name]) => name);
}

/** Host names something tried to resolve since the sinkhole started (only inside the namespace). */
export function dnsLookups(): string[] {
  const log = process.env["OUTPOST_DNS_LOG"];
  if (!insideOfflineNamespace() || !log) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0);
}
