import assert from "node:assert/strict";
import { isOutpostError } from "@outpost/core";
import { bytesOf, expectStored } from "./transport-assertions.js";
import { withTransport, type TransportSuiteContext } from "./transport-suite-context.js";

const RACERS = 50;

/** Concurrent writers on one key: exactly one wins, every other one gets code `conflict`. */
export function transportRaceTests(context: TransportSuiteContext): void {
  const { it } = context.runner;

  it(
    `${RACERS} racing create-only writers produce exactly one winner and ${RACERS - 1} conflicts`,
    () =>
      withTransport(context, async (transport) => {
        const outcomes = await Promise.allSettled(
          Array.from({ length: RACERS }, (_, index) =>
            transport.write("race/create.txt", bytesOf(`writer ${index}`), { ifRevision: null }),
          ),
        );
        const winners = winnersOf(outcomes);
        assert.equal(winners.length, 1, `winners: ${winners.length}`);
        const [winner] = winners;
        assert.ok(winner);
        await expectStored(transport, "race/create.txt", bytesOf(`writer ${winner.index}`), winner.value.revision);
      }),
    60_000,
  );

  it(
    `${RACERS} racing writers with the same current revision produce exactly one winner`,
    () =>
      withTransport(context, async (transport) => {
        const base = await transport.write("race/swap.txt", bytesOf("base"), { ifRevision: null });
        const outcomes = await Promise.allSettled(
          Array.from({ length: RACERS }, (_, index) =>
            transport.write("race/swap.txt", bytesOf(`writer ${index}`), { ifRevision: base.revision }),
          ),
        );
        const winners = winnersOf(outcomes);
        assert.equal(winners.length, 1, `winners: ${winners.length}`);
        const [winner] = winners;
        assert.ok(winner);
        await expectStored(transport, "race/swap.txt", bytesOf(`writer ${winner.index}`), winner.value.revision);
      }),
    60_000,
  );

  it(
    "a remove racing a rewrite never removes the rewrite",
    () =>
      withTransport(context, async (transport) => {
        for (let round = 0; round < 10; round += 1) {
          const key = `race/remove-${round}.txt`;
          const base = await transport.write(key, bytesOf("base"), { ifRevision: null });
          const [removal, rewrite] = await Promise.allSettled([
            transport.remove(key, { ifRevision: base.revision }),
            transport.write(key, bytesOf("rewrite"), { ifRevision: base.revision }),
          ]);
          const succeeded = [removal, rewrite].filter((outcome) => outcome?.status === "fulfilled").length;
          assert.equal(succeeded, 1, `round ${round}: ${succeeded} of remove and rewrite succeeded`);
          for (const outcome of [removal, rewrite]) {
            if (outcome?.status === "rejected")
              assert.ok(isOutpostError(outcome.reason, "conflict"), `round ${round}: loser failed with ${String(outcome.reason)}`);
          }
          const stored = await transport.read(key);
          if (rewrite?.status === "fulfilled") await expectStored(transport, key, bytesOf("rewrite"), rewrite.value.revision);
          else assert.equal(stored, undefined, `round ${round}: removed object still readable`);
        }
      }),
    60_000,
  );
}

function winnersOf<T>(outcomes: PromiseSettledResult<T>[]): { index: number; value: T }[] {
  const winners: { index: number; value: T }[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === "fulfilled") winners.push({ index, value: outcome.value });
    else
      assert.ok(
        isOutpostError(outcome.reason, "conflict"),
        `writer ${index} failed with something other than a conflict: ${String(outcome.reason)}`,
      );
  });
  return winners;
}
