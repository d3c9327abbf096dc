import { ChatModelError } from './errors'

/** An optional peer dependency of one of the package's entries, e.g. `@mlc-ai/web-llm` of `advisor-chain/webllm`. */
export interface OptionalPeer {
  entry: string
  pkg: string
  /** The provider named by the error. */
  provider: string
}

/**
 * An in-browser engine's runtime, from the app's own dependency, loaded on first use (`load` is the
 * entry's one `import()` of it). It is an optional peer dependency, so an app without it gets this
 * error (naming the package and how to install it) instead of its bundler's.
 */
export async function loadOptionalPeer<T>(peer: OptionalPeer, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    throw new ChatModelError(
      `${peer.entry} needs the package ${peer.pkg} (an optional peer dependency), which could not be loaded (${String(error)}). Install it in your app: npm install ${peer.pkg}`,
      { provider: peer.provider, code: 'runtime-missing', retryable: false, cause: error },
    )
  }
}
