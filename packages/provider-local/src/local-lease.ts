import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { Command, CommandResult, SandboxLease, TransferOptions } from "@outpost/core";
import { killMarkedProcesses, readPidCounter } from "@outpost/plugin-utils";
import { copyTree } from "./copy-tree.js";
import { LocalFileTransfers } from "./local-file-transfers.js";
import { LocalProcess } from "./local-process.js";
import { asOutpostFailure } from "./map-file-error.js";
import type { LeaseHome } from "./private-home.js";
import { commandDirectory, transferPath } from "./lease-paths.js";
import { transferGuard } from "./transfer-guard.js";

/** The variable every command of a lease carries, so release() can find what escaped its process groups. */
const LEASE_MARK_VARIABLE = "OUTPOST_LEASE_MARK";

export interface LocalLeaseSettings {
  readonly root: string;
  readonly home: LeaseHome;
  /** Variables every command gets (inherited allow-list, HOME, provider and context variables). */
  readonly environment: Readonly<Record<string, string>>;
  readonly killGraceMs: number;
}

/** A lease whose sandbox is the host itself: commands are host processes, transfers are file copies. */
export class LocalLease implements SandboxLease {
  readonly specificationVersion = "v1";
  readonly liveInput = true;
  // Its stdin is a pipe: a process waiting on it costs nothing.
  readonly idleInput = true;
  readonly root: string;
  readonly home: string;
  readonly fileTransfers: LocalFileTransfers;
  private readonly running = new Set<LocalProcess>();
  // Finished commands whose background processes still run: release() stops them too.
  private readonly leftovers = new Set<LocalProcess>();
  private released: Promise<void> | undefined;
  // Marks every process of this lease, so release() also finds those that left their process group (a
  // documented limit of a host placement: one that re-executes itself with a scrubbed environment is not
  // found). The pid counter is taken before any command: release() reads only the processes started after it.
  private readonly mark = { name: LEASE_MARK_VARIABLE, value: randomBytes(12).toString("hex"), since: readPidCounter() };

  constructor(private readonly settings: LocalLeaseSettings) {
    this.root = settings.root;
    this.home = settings.home.path;
    this.fileTransfers = new LocalFileTransfers({
      resolve: (path, what) => transferPath(this, path, what),
      assertUsable: (what) => this.assertUsable(what),
    });
  }

  async invoke(command: Command): Promise<CommandResult> {
    this.assertUsable(`run ${JSON.stringify(command.executable)}`);
    throwIfAborted(command.signal, `Command ${JSON.stringify(command.executable)}`);
    if (command.interactive === true) {
      throw new OutpostError("configuration", "The local provider does not attach a terminal. Run the command without `interactive`.");
    }
    const directory = await asOutpostFailure("Resolving the command directory", () =>
      commandDirectory(this.root, command.directory ?? this.root, "command directory"),
    );
    const found = await stat(directory).catch(() => undefined);
    if (!found?.isDirectory()) {
      throw new OutpostError(
        "workspace",
        `Cannot run ${JSON.stringify(command.executable)} in ${JSON.stringify(directory)}: it is not a directory. Create it first or pass another \`directory\`.`,
        {
          details: { directory },
        },
      );
    }
    // release() may have run while the directory was being checked.
    this.assertUsable(`run ${JSON.stringify(command.executable)}`);
    // HOME is the lease home whatever the provider or context variables say; a command may still set its own.
    const environment = { ...this.settings.environment, HOME: this.home, ...command.variables, [LEASE_MARK_VARIABLE]: this.mark.value };
    const child = new LocalProcess({ command, directory, environment, killGraceMs: this.settings.killGraceMs });
    this.running.add(child);
    try {
      return await child.result;
    } finally {
      this.running.delete(child);
      if (child.leftBehind()) this.leftovers.add(child);
    }
  }

  async upload(source: string, destination: string, options?: TransferOptions): Promise<void> {
    this.assertUsable("upload");
    const check = transferGuard(options, "The upload");
    check();
    await asOutpostFailure("The upload", async () =>
      copyTree(resolve(source), await transferPath(this, destination, "upload destination"), check),
    );
  }

  async download(source: string, destination: string, options?: TransferOptions): Promise<void> {
    this.assertUsable("download");
    const check = transferGuard(options, "The download");
    check();
    await asOutpostFailure("The download", async () =>
      copyTree(await transferPath(this, source, "download source"), resolve(destination), check),
    );
  }

  release(): Promise<void> {
    this.released ??= this.stopEverything();
    return this.released;
  }

  private async stopEverything(): Promise<void> {
    const stopped = new OutpostError(
      "provider",
      "The lease was released while this command was running. Acquire a new lease to run it again.",
    );
    await Promise.all([...this.running, ...this.leftovers].map((child) => child.stop(stopped)));
    await killMarkedProcesses(this.mark);
    await asOutpostFailure("Removing the lease's private home", () => this.settings.home.dispose());
  }

  private assertUsable(what: string): void {
    if (this.released !== undefined) {
      throw new OutpostError("provider", `Cannot ${what}: this local lease was released. Acquire a new lease from the provider.`);
    }
  }
}
