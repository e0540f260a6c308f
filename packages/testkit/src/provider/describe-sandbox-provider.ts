import type { SandboxContext } from "@outpost/core";
import { unavailableTitle, type SuiteOptions } from "../shared/suite-options.js";
import { vitestRunner } from "../shared/suite-runner.js";
import { providerCapabilityTests } from "./capabilities.js";
import { providerDeadlineTests } from "./deadline.js";
import { providerEnvironmentTests } from "./environment.js";
import { KIT_CONTEXT_VARIABLES, providerExecTests } from "./exec.js";
import { providerFileTransferTests } from "./file-transfers.js";
import { providerHostileTreeTests } from "./hostile-trees.js";
import { providerLifecycleTests } from "./lifecycle.js";
import { providerLiveInputTests } from "./live-input.js";
import type { ProviderCapability, ProviderSuiteContext, ProviderUnderTest } from "./provider-suite-context.js";
import { providerSandboxPathTests } from "./sandbox-paths.js";
import { providerTransferTests } from "./transfers.js";
import { checkedSubject } from "./subject-shape.js";

export interface DescribeSandboxProviderOptions extends SuiteOptions<ProviderCapability> {
  /** Called once for the suite; every case then acquires its own fresh lease. */
  readonly create: () => Promise<ProviderUnderTest>;
  /** Builds the acquire() context for a fresh host workspace; default: that directory, no git dirs, no variables. */
  readonly context?: (workspace: string) => SandboxContext | Promise<SandboxContext>;
  /** Case groups that are not capabilities but that a platform may truly be unable to run: group → reason (a named skip). */
  readonly skip?: ProviderSkips;
}

/** Groups `describeSandboxProvider` lets a provider skip by name, with the reason in the skip's title. */
export interface ProviderSkips {
  /** The hostile host and sandbox trees (`providerHostileTreeTests`). */
  readonly hostileTrees?: string;
}

const GROUPS: readonly [string, (context: ProviderSuiteContext) => void][] = [
  ["capabilities", providerCapabilityTests],
  ["exec", providerExecTests],
  ["environment", providerEnvironmentTests],
  ["live input", providerLiveInputTests],
  ["deadline and abort", providerDeadlineTests],
  ["upload and download", providerTransferTests],
  ["sandbox paths", providerSandboxPathTests],
  ["file transfers", providerFileTransferTests],
  ["lifecycle", providerLifecycleTests],
];

/** Registers the sandbox provider conformance suite for one provider. */
export function describeSandboxProvider(options: DescribeSandboxProviderOptions): void {
  const runner = options.runner ?? vitestRunner;
  runner.describe(`sandbox provider conformance: ${options.name}`, () => {
    if (options.unavailable) {
      runner.it.skip(unavailableTitle(options.unavailable.reason));
      return;
    }
    let subject: ProviderUnderTest | undefined;
    runner.beforeAll(async () => {
      subject = checkedSubject(await options.create(), options.name);
    }, 300_000);
    runner.afterAll(async () => {
      await subject?.dispose?.();
    }, 120_000);
    const context: ProviderSuiteContext = {
      runner,
      unsupported: options.unsupported ?? {},
      provider: () => {
        if (subject === undefined) throw new Error(`The provider "${options.name}" was not created: its create() failed or has not run.`);
        return subject.provider;
      },
      context: async (workspace) => {
        const base = options.context ? await options.context(workspace) : defaultContext(workspace);
        return { ...base, variables: { ...KIT_CONTEXT_VARIABLES, ...base.variables } };
      },
    };
    for (const [title, group] of GROUPS) runner.describe(title, () => group(context));
    runner.describe("hostile trees", () => providerHostileTreeTests(context, options.skip?.hostileTrees));
  });
}

function defaultContext(workspace: string): SandboxContext {
  return { repository: workspace, directory: workspace, gitDirectories: [], variables: {} };
}
