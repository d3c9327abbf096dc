// advisor-chain/react: React bindings for a ChatClient.
export { toViews, type ChatMessageView, type ToolCallView } from './chat-view'
export { useChat, type ChatStatus, type UseChat, type UseChatOptions } from './use-chat'
