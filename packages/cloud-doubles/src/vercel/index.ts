export { startVercelDouble } from "./vercel-double.js";
export type { VercelDouble, VercelDoubleOptions } from "./vercel-double.js";
export type { VercelFault } from "./vercel-double.js";
