import { sandboxLibrary } from "./sandbox-library.js";

/** The helpers' one instance inside a sandbox program (each run of the programs' file makes its own). */
export const lib = sandboxLibrary();
