import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor } from "@outpost/core";
import { kimiAgent } from "./kimi-agent.js";
import { kimiConversationStore } from "./kimi-conversation-store.js";

/** How hosts (the outpost CLI, doctor) find, check and build this agent without knowing it by name. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "kimi",
  description: "Kimi Code (Moonshot AI)",
  executable: "kimi",
  variables: { apiKey: "KIMI_API_KEY" },
  // Kimi Code takes a key with every endpoint; an endpoint without one sends an empty key.
  createAgent: ({ endpoint, ...options }) =>
    kimiAgent({ ...options, ...(endpoint ? { endpoint: { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey ?? "" } } : {}) }),
  createStore: () => kimiConversationStore(),
};
