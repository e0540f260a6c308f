import { availableParallelism, loadavg } from "node:os";

/** The budget on an idle, fast machine: cold starts of 1–2 s (Gemini, Copilot) fit many times over. */
const BASE_MS = 15_000;
const CEILING_MS = 120_000;

/**
 * How long `<cli> --version` may take before the version counts as unknown. It scales with the machine: the
 * load per core (a loaded 2-core machine made 2 s cold starts take 13 s), and the target's own speed, as the
 * round trip of one trivial command there (`sampleMs`: a remote sandbox is slower than the host).
 * `OUTPOST_CLI_PROBE_MS` replaces the whole budget (a slow emulated machine, or a test).
 */
export function cliProbeBudgetMs(sampleMs = 0): number {
  const configured = Number(process.env["OUTPOST_CLI_PROBE_MS"]);
  if (Number.isFinite(configured) && configured > 0) return configured;
  const load = Math.max(1, loadavg()[0]! / Math.max(1, availableParallelism()));
  return Math.round(Math.min(CEILING_MS, BASE_MS * load + 100 * Math.max(0, sampleMs)));
}
