// Types of scripts/layers.mjs, for the tests that read the layer table.
export declare const LAYERS: string[][];
export declare const PUBLIC_MODULES: string[];
export declare const BEHIND_HUB: string[];
export declare function layerOf(folder: string): number | undefined;
export declare function layerLintRules(): Array<{ files: string[]; rules: Record<string, ['error', unknown]> }>;
