import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who a process is, in a way a later process can check: a pid alone is reused after a crash and means
 * nothing across pid namespaces (containers) or reboots, so the kernel's start time of the process, the
 * boot id, the pid namespace and the host name come along.
 */
export interface ProcessIdentity {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot); absent where /proc is not available. */
  readonly startTime?: string;
  /** /proc/sys/kernel/random/boot_id: changes on every boot. */
  readonly bootId?: string;
  /** Inode of the pid namespace (`pid:[…]`): differs inside a container. */
  readonly pidNamespace?: string;
  readonly host: string;
}

/** What a check of an identity concluded. `unknown`: another machine or a namespace we cannot see. */
export type Liveness = "alive" | "dead" | "unknown";

// The initial pid namespace always has this inode (PROC_PID_INIT_INO); from it every process is visible.
const INITIAL_PID_NAMESPACE = "pid:[4026531836]";

let own: ProcessIdentity | undefined;

/** This process's identity (computed once). */
export function currentProcess(): ProcessIdentity {
  own ??= identityOf(process.pid) ?? { pid: process.pid, host: hostname() };
  return own;
}

/** The identity of a live process on this machine, or undefined when it does not exist. */
export function identityOf(pid: number): ProcessIdentity | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const startTime = startTimeOf(pid);
  if (startTime === undefined && procAvailable()) return undefined;
  return {
    pid,
    ...(startTime ? { startTime } : {}),
    ...optional("bootId", bootId()),
    ...optional("pidNamespace", pidNamespaceOf(pid)),
    host: hostname(),
  };
}

/** Whether the process `identity` describes still runs. A pid that lives with another start time is a new process. */
export function liveness(identity: ProcessIdentity): Liveness {
  const self = currentProcess();
  if (identity.bootId && self.bootId && identity.bootId !== self.bootId) {
    // Same host, other boot: every process of that boot is gone. Another host: we cannot see its processes.
    return identity.host === self.host ? "dead" : "unknown";
  }
  if (identity.pidNamespace && self.pidNamespace && identity.pidNamespace !== self.pidNamespace) {
    // A container's processes are visible from the initial namespace: the namespace lives while one does.
    if (self.pidNamespace !== INITIAL_PID_NAMESPACE) return "unknown";
    return namespaceHasProcesses(identity.pidNamespace) ? "alive" : "dead";
  }
  if (!procAvailable() || identity.startTime === undefined) return signalProbe(identity.pid);
  const startTime = startTimeOf(identity.pid);
  return startTime !== undefined && startTime === identity.startTime ? "alive" : "dead";
}

/** Parses a value read back from a file; undefined when it is not an identity. */
export function parseIdentity(value: unknown): ProcessIdentity | undefined {
  const record = value as Partial<Record<keyof ProcessIdentity, unknown>> | null;
  if (
    !record ||
    typeof record !== "object" ||
    !Number.isInteger(record.pid) ||
    (record.pid as number) <= 0 ||
    typeof record.host !== "string"
  )
    return undefined;
  const text = (key: "startTime" | "bootId" | "pidNamespace") => (typeof record[key] === "string" ? { [key]: record[key] } : {});
  return { pid: record.pid as number, host: record.host, ...text("startTime"), ...text("bootId"), ...text("pidNamespace") };
}

/** One line for messages: `pid 123 on host vm (started …)`. */
export function describeProcess(identity: ProcessIdentity): string {
  return `pid ${identity.pid} on host ${identity.host}${identity.pidNamespace && identity.pidNamespace !== currentProcess().pidNamespace ? ` in pid namespace ${identity.pidNamespace}` : ""}`;
}

function startTimeOf(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // A zombie has exited; only its parent has not collected it yet.
  if (fields[0] === "Z" || fields[0] === "X") return undefined;
  return fields[19];
}

function bootId(): string | undefined {
  return readText("/proc/sys/kernel/random/boot_id")?.trim();
}

function pidNamespaceOf(pid: number | "self"): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

// A waiter asks again every few milliseconds; one scan of /proc per namespace and half second is enough.
const namespaceScans = new Map<string, { readonly at: number; readonly alive: boolean }>();

function namespaceHasProcesses(namespace: string): boolean {
  const cached = namespaceScans.get(namespace);
  if (cached && Date.now() - cached.at < 500) return cached.alive;
  let alive = false;
  for (const name of readdirSync("/proc")) {
    if (/^\d+$/.test(name) && pidNamespaceOf(Number(name)) === namespace && startTimeOf(Number(name)) !== undefined) {
      alive = true;
      break;
    }
  }
  if (namespaceScans.size > 64) namespaceScans.clear();
  namespaceScans.set(namespace, { at: Date.now(), alive });
  return alive;
}

function signalProbe(pid: number): Liveness {
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH" ? "dead" : "alive";
  }
}

let proc: boolean | undefined;
function procAvailable(): boolean {
  proc ??= readText("/proc/self/stat") !== undefined;
  return proc;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
