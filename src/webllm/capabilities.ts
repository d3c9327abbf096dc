/** What this browser's WebGPU can do, found without downloading anything. */
export interface WebGPUReport {
  ok: boolean
  /** Why a model cannot run here; absent when `ok`. */
  reason?: 'no-webgpu' | 'no-adapter' | 'too-small' | 'error'
  /** A sentence for the user. */
  message: string
  /** Half-precision shaders: without them only the `q4f32` variants of models run. */
  shaderF16: boolean
  adapter?: {
    vendor: string
    architecture: string
    isFallbackAdapter: boolean
    maxBufferSize: number
    maxStorageBufferBindingSize: number
    features: string[]
  }
}

interface GPUAdapterLike {
  features: { has(feature: string): boolean; forEach(callback: (feature: string) => void): void }
  limits: { maxBufferSize: number; maxStorageBufferBindingSize: number }
  info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean }
  isFallbackAdapter?: boolean
}

interface NavigatorWithGPU {
  gpu?: { requestAdapter(options?: { powerPreference?: string }): Promise<GPUAdapterLike | null> }
}

/** Checks WebGPU, the adapter, `shader-f16` and buffer limits; `minBufferBytes` is what a model needs, when known. */
export async function checkWebGPU(minBufferBytes = 0): Promise<WebGPUReport> {
  const gpu = (globalThis.navigator as NavigatorWithGPU | undefined)?.gpu
  if (!gpu) {
    return {
      ok: false,
      reason: 'no-webgpu',
      shaderF16: false,
      message:
        'This browser has no WebGPU, so in-browser models cannot run. Use a recent Chrome, Edge or Safari on a secure (https or localhost) page, or pick a remote model.',
    }
  }
  let adapter: GPUAdapterLike | null
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' })
  } catch (error) {
    return {
      ok: false,
      reason: 'error',
      shaderF16: false,
      message: `WebGPU failed to start: ${(error as Error).message}`,
    }
  }
  if (!adapter) {
    return {
      ok: false,
      reason: 'no-adapter',
      shaderF16: false,
      message:
        'WebGPU is there but found no usable GPU (it may be blocked or disabled). In-browser models cannot run here; pick a remote model.',
    }
  }
  const features: string[] = []
  adapter.features.forEach((feature) => features.push(feature))
  const shaderF16 = adapter.features.has('shader-f16')
  const limits = {
    maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
  }
  const isFallbackAdapter = adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false
  const report: WebGPUReport = {
    ok: true,
    shaderF16,
    adapter: {
      vendor: adapter.info?.vendor ?? '',
      architecture: adapter.info?.architecture ?? '',
      isFallbackAdapter,
      ...limits,
      features,
    },
    message: describe(isFallbackAdapter, shaderF16, adapter.info?.vendor),
  }
  if (minBufferBytes > limits.maxStorageBufferBindingSize) {
    return {
      ...report,
      ok: false,
      reason: 'too-small',
      message: `This GPU allows buffers of ${mb(limits.maxStorageBufferBindingSize)}, but the model needs ${mb(minBufferBytes)}. Pick a smaller model.`,
    }
  }
  return report
}

function describe(fallback: boolean, shaderF16: boolean, vendor: string | undefined): string {
  const device = fallback
    ? 'a software (fallback) WebGPU adapter: models run, but very slowly'
    : `a WebGPU GPU${vendor ? ` (${vendor})` : ''}`
  return `This browser has ${device}${shaderF16 ? '' : '; no shader-f16, so the q4f32 variant of a model is used'}.`
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MB`
}

/** The model id to load here: the `q4f32` variant of a `q4f16` model when the GPU has no `shader-f16`. */
export function modelVariantFor(
  modelId: string,
  report: Pick<WebGPUReport, 'shaderF16'>,
  available?: readonly string[],
): string {
  if (report.shaderF16 || !modelId.includes('q4f16')) return modelId
  const variant = modelId.replace('q4f16', 'q4f32')
  return !available || available.includes(variant) ? variant : modelId
}
