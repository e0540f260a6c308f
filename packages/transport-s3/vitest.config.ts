import { outpostProject } from "../../vitest.shared.js";

// The AWS SDK's exports list "module" (dist-es, extensionless imports Node cannot load) before "node":
// resolve it without the "module" condition so Node gets the CommonJS build, as it does outside tests.
const conditions = ["outpost-source", "node", "import", "default"];
const project = outpostProject("transport-s3");

export default {
  ...project,
  resolve: { ...project.resolve, conditions },
  ssr: { ...project.ssr, resolve: { ...project.ssr?.resolve, conditions, externalConditions: conditions } },
};
