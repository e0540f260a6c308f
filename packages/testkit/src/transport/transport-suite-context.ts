import { assertSpecificationVersion, type Transport } from "@outpost/core";
import type { SuiteRunner } from "../shared/suite-runner.js";

/** What `create` resolves: a fresh transport for one case, and how to clean it up. */
export interface TransportUnderTest {
  readonly transport: Transport;
  readonly dispose?: () => Promise<void>;
}

/** What every transport group receives: where to register cases and how to get a fresh transport. */
export interface TransportSuiteContext {
  readonly runner: SuiteRunner;
  readonly create: () => Promise<TransportUnderTest>;
}

/** Runs `body` against a fresh transport and always disposes it, also when the body fails. */
export async function withTransport(context: TransportSuiteContext, body: (transport: Transport) => Promise<void>): Promise<void> {
  const subject = await context.create();
  try {
    assertSpecificationVersion(subject.transport, "transport");
    await body(subject.transport);
  } finally {
    await subject.dispose?.();
  }
}
