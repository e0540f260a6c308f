import { outpostProject } from "../../vitest.shared.js";

// The archive tests use @outpost/transport-s3. The AWS SDK's exports list "module" (dist-es, extensionless
// imports Node cannot load) before "node": resolve without "module" so Node gets the CommonJS build.
const conditions = ["outpost-source", "node", "import", "default"];
const project = outpostProject("conversations");

export default {
  ...project,
  resolve: { ...project.resolve, conditions },
  ssr: { ...project.ssr, resolve: { ...project.ssr?.resolve, conditions, externalConditions: conditions } },
};
