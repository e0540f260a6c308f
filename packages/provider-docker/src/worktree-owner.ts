import { stat } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import { DEFAULT_USER } from "./docker-provider-config.js";

/** The user a mounted lease runs as, checked against the worktree so the agent can write its files. */
export async function mountedUser(
  directory: string,
  configured: { uid: number; gid: number } | undefined,
): Promise<{ uid: number; gid: number }> {
  const info = await stat(directory).catch((error: NodeJS.ErrnoException) => {
    throw new OutpostError(
      "workspace",
      `Cannot mount ${JSON.stringify(directory)}: ${error.code === "ENOENT" ? "it does not exist" : error.message}. Pass an existing worktree directory.`,
      {
        cause: error,
        details: { directory },
      },
    );
  });
  if (!info.isDirectory()) {
    throw new OutpostError("workspace", `Cannot mount ${JSON.stringify(directory)}: it is not a directory. Pass the worktree directory.`, {
      details: { directory },
    });
  }
  const user = configured ?? (info.uid === 0 ? DEFAULT_USER : { uid: info.uid, gid: info.gid });
  // Capabilities are dropped, so even uid 0 in the container needs the permission bits to write.
  const writable = user.uid === info.uid ? info.mode & 0o200 : user.gid === info.gid ? info.mode & 0o020 : info.mode & 0o002;
  if (!writable) {
    throw new OutpostError(
      "configuration",
      `The worktree ${JSON.stringify(directory)} belongs to uid ${info.uid}:${info.gid} (mode ${(info.mode & 0o777).toString(8)}), ` +
        `so the container user ${user.uid}:${user.gid} could not write it. Pass user: { uid: ${info.uid}, gid: ${info.gid} } to dockerProvider, or give the directory to a non-root owner.`,
      { details: { directory, owner: info.uid, user: user.uid } },
    );
  }
  return { uid: user.uid, gid: user.gid };
}
