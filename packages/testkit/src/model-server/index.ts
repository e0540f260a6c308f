export { startModelServer } from "./model-server.js";
export type { LoggedRequest, ModelServer, ModelServerOptions } from "./model-server.js";
export { conversationResponder } from "./conversation-responder.js";
export type { ConversationResponderOptions } from "./conversation-responder.js";
export { writeFileStep, writeFileArguments, workingDirectory, WRITE_FILE_TOOLS } from "./write-file-step.js";
export { sampleFromSchema } from "./json-schema-sample.js";
export { toolNames } from "./model-request.js";
export type { ModelApi, ModelRequest, OfferedTool } from "./model-request.js";
export { DEFAULT_USAGE } from "./script-step.js";
export type {
  ErrorStep,
  ModelReply,
  ReplyUsage,
  Responder,
  ScriptStep,
  StepFunction,
  TextStep,
  ToolArguments,
  ToolCallStep,
} from "./script-step.js";
