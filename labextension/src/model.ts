// The graph export, schema version 1 (docs/graph_export.md): only the fields the views
// read. Readers ignore fields they do not know, as the schema asks.
export const MIME_TYPE = 'application/vnd.tfteach.graph+json';

export interface NodeOutput {
  index: number;
  tensor: string;
  dtype: string;
  shape: (number | null)[] | null;
}

export interface GraphNode {
  name: string;
  op: string;
  kind: string;
  scope: string;
  requested_device: string;
  assigned_device: string;
  inputs: { node: string; output: number; tensor: string }[];
  control_inputs: string[];
  outputs: NodeOutput[];
  attrs: { [key: string]: string };
  location: string;
  auxiliary?: boolean; // the initialization subgraph, drawn apart (TensorBoard's "auxiliary")
}

export interface GraphEdge {
  src: string;
  src_output: number | null;
  tensor: string | null;
  dst: string;
  dst_input: number | null;
  control: boolean;
  dtype: string | null;
  shape: (number | null)[] | null;
}

export interface Scope {
  path: string;
  parent: string;
  depth: number;
  num_nodes: number;
}

export interface Device {
  name: string;
  type: string;
  virtual: boolean;
  color: string;
}

export interface ValuePreview {
  dtype: string | null;
  shape: number[] | null;
  preview: string;
}

export interface Step {
  index: number;
  name: string;
  op: string;
  device: string;
  time_us: number;
  output_bytes: number;
  is_copy: boolean;
  outputs?: ValuePreview[];
}

/** A copy between devices the run made (MEMCPYHtoD, ...), drawn as its own small node. */
export interface Copy {
  name: string;
  op: string;
  tensor: string;
  from: string;
  to: string;
  bytes: number;
}

export interface Run {
  index: number;
  kind: string;
  label: string;
  fetches: string[];
  feeds: string[];
  targets: string[];
  executed: string[];
  pruned: string[];
  steps: Step[];
  copies?: Copy[];
  total_us: number;
  error: string | null;
}

export interface GraphExport {
  version: number;
  kind: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  scopes: Scope[];
  devices: Device[];
  runs: Run[];
  view?: {
    collapse?: number | null;
    folded?: string[]; // scopes a view starts with folded (training scopes of a big graph)
    selected_run?: number | null;
    step?: number | null;
  };
  note?: string;
  queues?: QueueEntry[]; // issue 18: queues and the runner threads that fill them
}

/** One queue of the graph (notebook/graph_queues.py; docs/graph_export.md "Queue"). */
export interface QueueEntry {
  name: string;
  op: string;
  enqueue_ops: string[];
  dequeue_ops: string[];
  readers: string[];
  other_ops: string[];
  runners: { threads: { [enqueueOp: string]: number }; close_op: string | null; cancel_op: string | null }[];
}

/** "/job:localhost/replica:0/task:0/device:GPU:1" -> "GPU:1"; "" stays ""
 * (graph_export.short_device). */
export function shortDevice(name: string): string {
  if (!name) {
    return '';
  }
  const tail = name.slice(name.lastIndexOf('/') + 1);
  return tail.startsWith('device:') ? tail.slice('device:'.length) : tail.toUpperCase();
}

export const UNPLACED_COLOR = '#eeeeee';

/** Checks the parts every view needs, so a bad bundle says so instead of throwing later. */
export function validateExport(data: unknown): string | null {
  const d = data as GraphExport;
  if (!d || typeof d !== 'object') {
    return 'not a JSON object';
  }
  if (d.version !== 1) {
    return `unsupported graph export version ${String(d.version)} (this view reads 1)`;
  }
  for (const key of ['nodes', 'edges', 'scopes', 'devices', 'runs']) {
    if (!Array.isArray((d as any)[key])) {
      return `missing list "${key}"`;
    }
  }
  return null;
}
