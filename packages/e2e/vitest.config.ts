import { outpostProject } from "../../vitest.shared.js";

export default outpostProject("e2e", { setupFiles: ["tests/support/private-temp.ts"] });
