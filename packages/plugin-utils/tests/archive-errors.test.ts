import { describe, expect, it } from "vitest";
import { mapArchiveError, sandboxRefusal } from "../src/index.js";

describe("mapArchiveError and sandboxRefusal", () => {
  it("bytes tar-stream refuses are a provider error naming what to check, with the cause kept", () => {
    const failure = new Error("Unexpected end of data");
    const error = mapArchiveError(failure, 'download "a" to "/b"', "the Docker engine (docker info)");
    expect(error.code).toBe("provider");
    expect(error.message).toMatch(/truncated or corrupt \(Unexpected end of data\).*check the Docker engine \(docker info\)/);
    expect(error.cause).toBe(failure);
  });

  it("a refusal status (90-99) is a workspace error carrying the script's last words", () => {
    const error = sandboxRefusal(93, "a/b is reached through a link\n", 'list "a"');
    expect(error.code).toBe("workspace");
    expect(error.message).toBe('Refused to list "a": a/b is reached through a link. Use a path that exists and stays inside the tree.');
  });

  it("a host file-system failure while unpacking is a workspace error about the destination", () => {
    const failure = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
    const error = mapArchiveError(failure, 'download "a" to "/b"', "the connection");
    expect(error.code).toBe("workspace");
    expect(error.message).toMatch(/Check the host destination/);
    expect(error.cause).toBe(failure);
  });

  it("GNU tar's 'file changed as we read it' says a writer is still busy and to retry after it", () => {
    const error = sandboxRefusal(1, "tar: ./transcript.jsonl: file changed as we read it\n", 'download "t" to "/h"');
    expect(error.code).toBe("workspace");
    expect(error.message).toMatch(
      /a file changed while tar read it \(tar: \.\/transcript\.jsonl: file changed as we read it; status 1\)\. Something in the sandbox is still writing there/,
    );
    expect(error.details).toMatchObject({ status: 1, changedWhileRead: true });
  });
});
