/**
 * The mode a transferred file or directory gets. Its rule: **only the permission bits (0o777) travel**;
 * setuid, setgid and sticky bits never do, in either direction, so a file the sandbox planted can never
 * become a set-id program on the host (where Outpost may run as root), and a manifest compares like for like.
 */
export function transferMode(mode: number): number {
  return mode & 0o777;
}
