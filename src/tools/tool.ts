import type { z } from 'zod';
import type { Action } from '../hub/index.js';
import type { ToolContext, ToolDef } from './tool-types.js';

/** Defines a tool with its argument types inferred from the schema. */
export function tool<S extends z.ZodObject>(definition: {
  name: string;
  description: string;
  input: S;
  action: Action;
  readOnly?: boolean;
  run(ctx: ToolContext, args: z.output<S>): Promise<unknown>;
}): ToolDef {
  return definition as unknown as ToolDef;
}
