// A Server Component that imports the root and the devtools entries, as apps do: the devtools are
// a client module, so the server renders nothing of them (here they are off; the chat below
// renders the live panel with its store).
import { ChatMemory } from 'advisor-chain'
import { AdvisorDevtools, type DevtoolsStore } from 'advisor-chain/devtools'
import { Chat } from './chat'

const noStore = undefined as unknown as DevtoolsStore

export default function Page() {
  return (
    <main>
      <h1>Weather assistant</h1>
      <Chat conversationId={ChatMemory.DEFAULT_CONVERSATION_ID} />
      <AdvisorDevtools store={noStore} enabled={false} />
    </main>
  )
}
