import { defineProject } from "vitest/config";
import { outpostProject } from "../../vitest.shared.js";

// The shared external conditions include "import", which Node then also applies to require(): the SDK's
// isomorphic-ws does require("ws") and would get ws's ESM namespace instead of the WebSocket class.
const project = outpostProject("cloud-doubles");
export default defineProject({
  ...project,
  ssr: { resolve: { conditions: ["outpost-source", "node", "default"], externalConditions: ["outpost-source", "node", "default"] } },
});
