import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { unpackDirectory } from "../archive/file-pack.js";
import { replaceDirectory } from "./replace-directory.js";

/**
 * Rule: a conversation's host folder `<target>/<id>` is only ever replaced whole: `fill` writes a fresh
 * scratch folder beside it, which takes its place in one step once `fill` succeeded, and is removed otherwise.
 * `step` names the scratch folder (`.<id>.<step>-…`).
 */
export async function writeConversationFolder(
  target: string,
  id: string,
  step: string,
  fill: (work: string) => Promise<void>,
): Promise<string> {
  await mkdir(target, { recursive: true });
  const work = await mkdtemp(join(target, `.${id}.${step}-`));
  try {
    await fill(work);
    await replaceDirectory(work, join(target, id));
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  return join(target, id);
}

/**
 * A packed conversation folder (`pack`'s bytes) unpacked as `<target>/<id>`, put in place only after `check`
 * accepted the unpacked folder (it throws to refuse it).
 */
export async function unpackConversationFolder(
  bytes: Uint8Array,
  target: string,
  id: string,
  what: string,
  check: (folder: string) => Promise<void>,
): Promise<string> {
  return writeConversationFolder(target, id, "unpack", async (work) => {
    await unpackDirectory(bytes, work, what);
    await check(work);
  });
}
