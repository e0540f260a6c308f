import { describeAgentChain } from "./support/agent-chain.js";

describeAgentChain("gemini");
