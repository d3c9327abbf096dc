import { useRef, useSyncExternalStore } from 'react'
import {
  createChat,
  memoryOf,
  type Chat,
  type ChatClient,
  type ChatCommands,
  type ChatState,
  type CreateChatOptions,
} from '../client'
import type { ToolCallback } from '../core'
import { ChatMemory } from '../memory'
import type { Infer, SchemaLike } from '../schema'

/** The options of `createChat`: see `CreateChatOptions`. */
export type UseChatOptions<Tools = ToolCallback, Output extends SchemaLike = SchemaLike> = CreateChatOptions<
  Tools,
  Output
>

/** `Tools`: the tools of the client (`typeof tools[number]`, of `defineTool`): tool parts are typed by them. */
export interface UseChat<Tools = ToolCallback, Output = unknown>
  extends ChatState<Tools, Output>, ChatCommands<Tools> {}

/**
 * A chat UI's state for a ChatClient, as `createChat` keeps it: the messages as ordered parts, the
 * answer streaming into them, tool calls where they happened and in their states, approvals
 * answered from the message, attachments, stop, retry and regenerate. The component subscribes to
 * one chat per conversation (`memory` and `conversationId`); unmounting, or moving to another
 * conversation, stops its answer.
 */
export function useChat<Tools = ToolCallback, Output extends SchemaLike = SchemaLike>(
  client: ChatClient | undefined,
  options: UseChatOptions<Tools, Output> = {},
): UseChat<Tools, Infer<Output>> {
  // The memory the chat keeps: the one given, else the client's memory advisor's (as createChat finds it).
  const { memory = memoryOf(client), conversationId = ChatMemory.DEFAULT_CONVERSATION_ID } = options
  const made = useRef<Chat<Tools, Infer<Output>>>(undefined)
  let chat = made.current
  if (!chat || chat.memory !== memory || chat.conversationId !== conversationId)
    made.current = chat = createChat(client, options)
  // The latest client and callbacks: an answer that began a render ago calls the ones given since.
  chat.setOptions(client, options)
  const state = useSyncExternalStore(chat.subscribe, chat.getSnapshot, chat.getSnapshot)
  return {
    ...state,
    send: chat.send,
    sendMessage: chat.sendMessage,
    resume: chat.resume,
    stop: chat.stop,
    retry: chat.retry,
    regenerate: chat.regenerate,
    addToolApproval: chat.addToolApproval,
    clear: chat.clear,
    setMessages: chat.setMessages,
  }
}
