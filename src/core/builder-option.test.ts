import { describe, expect, it } from 'vitest'
import { setOption } from './builder-option'

class Builder {
  readonly #options: { order?: number; name?: string } = {}
  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }
  name(name: string): this {
    return setOption(this, this.#options, 'name', name)
  }
  build() {
    return { ...this.#options }
  }
}

describe('a method of an advisor builder', () => {
  it('sets its option and gives the builder back, so calls chain', () => {
    const builder = new Builder()
    expect(builder.order(5)).toBe(builder)
    expect(builder.name('a').order(7).build()).toEqual({ order: 7, name: 'a' })
  })
})
