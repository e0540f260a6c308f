import type { DaytonaDouble } from "@outpost/cloud-doubles/daytona";
import type { VercelDouble } from "@outpost/cloud-doubles/vercel";

// Vercel: OUTPOST_VERCEL_API_URL, since the SDK has no variable for its origin; Daytona: DAYTONA_API_URL, its own.
const CLOUD_VARIABLES = /^(VERCEL_|DAYTONA_|OUTPOST_VERCEL_)/;

/** The SDK's usual variables that reach the Vercel API double. */
export function vercelEnvironment(double: VercelDouble): Record<string, string> {
  return {
    VERCEL_TOKEN: double.credentials.token,
    VERCEL_TEAM_ID: double.credentials.teamId,
    VERCEL_PROJECT_ID: double.credentials.projectId,
    OUTPOST_VERCEL_API_URL: double.url,
  };
}

/** The SDK's usual variables that reach the Daytona API double. */
export function daytonaEnvironment(double: DaytonaDouble): Record<string, string> {
  return {
    DAYTONA_API_KEY: double.credentials.apiKey,
    DAYTONA_API_URL: double.credentials.apiUrl,
    DAYTONA_TARGET: double.credentials.target,
  };
}

/** This process's environment with none of its own cloud variables, and `cloud` only. */
export function onlyCloud(cloud: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !CLOUD_VARIABLES.test(name))), ...cloud };
}
