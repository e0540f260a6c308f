import { describeAgentChain } from "./support/agent-chain.js";

// Kimi Code is not published on npm (see the agent-clis notes): this runs when a `kimi` is installed in the project.
describeAgentChain("kimi");
