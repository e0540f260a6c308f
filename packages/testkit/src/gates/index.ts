// Service gates: probe a backend a suite needs and turn its absence into a named skip, or a failure
// under OUTPOST_REQUIRE_<BACKEND>=1, so CI can never pass by skipping.
export { gate } from "../shared/gate.js";
export type { Unavailable } from "../shared/suite-options.js";
export { describeGated } from "./describe-gated.js";
export { dockerGate, TEST_IMAGE, BUSYBOX_IMAGE } from "./docker-gate.js";
export type { DockerGateOptions } from "./docker-gate.js";
export { s3Gate } from "./s3-gate.js";
export { startMotoServer, MOTO_CREDENTIALS } from "./moto-server.js";
export type { MotoClientSettings, MotoServer } from "./moto-server.js";
export { redisGate } from "./redis-gate.js";
export { startRedisServer } from "./redis-server.js";
export type { RedisServer, RedisServerOptions } from "./redis-server.js";
