import { outpostProject } from "../../vitest.shared.js";

export default outpostProject("provider-vercel");
