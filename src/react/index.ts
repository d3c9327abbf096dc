'use client'
// advisor-chain/react: React bindings for a ChatClient.
export { withStreamPart } from './chat-parts'
export {
  bubbleOf,
  messagesOf,
  toViews,
  type ChatMessageView,
  type ChatPartView,
  type ToolApprovalMark,
  type ToolCallPartView,
  type ToolCallState,
  type ToolCallView,
  type ToolPartOf,
  type ToolParts,
} from './chat-view'
export {
  useChat,
  type ChatFinish,
  type ChatStatus,
  type ToolApprovalAnswer,
  type UseChat,
  type UseChatOptions,
} from './use-chat'
