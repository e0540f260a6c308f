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
  /** The container the process ran in (Docker, containerd, CRI-O: from /proc/<pid>/cgroup or mountinfo). */
  readonly containerId?: string;
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
    ...optional("containerId", containerIdOf(pid)),
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
    // One container, one pid namespace: the same container in another one was restarted, its processes are gone.
    if (identity.bootId && identity.bootId === self.bootId && identity.containerId && identity.containerId === self.containerId)
      return "dead";
    // A container's processes are visible from the initial namespace: the namespace lives while one does.
    if (self.pidNamespace !== INITIAL_PID_NAMESPACE) return "unknown";
    return namespaceHolds(identity) ? "alive" : "dead";
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
  const text = (key: "startTime" | "bootId" | "pidNamespace" | "containerId") =>
    typeof record[key] === "string" ? { [key]: record[key] } : {};
  return {
    pid: record.pid as number,
    host: record.host,
    ...text("startTime"),
    ...text("bootId"),
    ...text("pidNamespace"),
    ...text("containerId"),
  };
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

/**
 * When the process `pid` of this pid namespace started, in ms since the epoch; undefined where /proc cannot say.
 * A process that started after a file was written cannot have written it (what proves a reused pid).
 */
export function processStartedAt(pid: number): number | undefined {
  const ticks = Number(startTimeOf(pid));
  const uptime = Number(readText("/proc/uptime")?.split(" ")[0]);
  if (!Number.isFinite(ticks) || !Number.isFinite(uptime)) return undefined;
  // Linux reports start times in USER_HZ, 100 on every architecture it runs on.
  return Date.now() - uptime * 1_000 + (ticks / 100) * 1_000;
}

// 64 hex digits after a runtime's name in a cgroup path (cgroup v1), or the container's own /etc/hostname bind
// mount in mountinfo (cgroup v2 hides the path); a host's own mounts of containers' files never sit there.
const CGROUP_CONTAINER = /(?:docker|containerd|crio|libpod)[-/]([0-9a-f]{64})/;
const HOSTNAME_MOUNT = /\/containers\/([0-9a-f]{64})\/hostname \/etc\/hostname /;

function containerIdOf(pid: number): string | undefined {
  return (
    CGROUP_CONTAINER.exec(readText(`/proc/${pid}/cgroup`) ?? "")?.[1] ?? HOSTNAME_MOUNT.exec(readText(`/proc/${pid}/mountinfo`) ?? "")?.[1]
  );
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

// A waiter asks again every few milliseconds; one scan of /proc per identity and half second is enough.
const namespaceScans = new Map<string, { readonly at: number; readonly alive: boolean }>();

/**
 * Whether a process of another pid namespace still runs, seen from the initial one: a process in that namespace
 * with that pid there (the last NSpid of its status) and the same start time. The namespace alone is not enough:
 * its inode is reused once it is freed (a restarted container often gets the same one).
 */
function namespaceHolds(identity: ProcessIdentity): boolean {
  const key = `${identity.pidNamespace}:${identity.pid}:${identity.startTime ?? ""}`;
  const cached = namespaceScans.get(key);
  if (cached && Date.now() - cached.at < 500) return cached.alive;
  let alive = false;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || pidNamespaceOf(Number(name)) !== identity.pidNamespace) continue;
    const startTime = startTimeOf(Number(name));
    if (startTime === undefined) continue;
    const inner = /^NSpid:\s+(.*)$/m
      .exec(readText(`/proc/${name}/status`) ?? "")?.[1]
      ?.trim()
      .split(/\s+/)
      .at(-1);
    // Without a start time (older records) any process of the namespace counts, as before.
    if (identity.startTime === undefined || (Number(inner) === identity.pid && startTime === identity.startTime)) {
      alive = true;
      break;
    }
  }
  if (namespaceScans.size > 64) namespaceScans.clear();
  namespaceScans.set(key, { at: Date.now(), alive });
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
