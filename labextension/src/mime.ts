// The MIME renderer extension: `application/vnd.tfteach.graph+json` -> GraphView.
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { GraphView } from './graph';
import { MIME_TYPE } from './model';

export const rendererFactory: IRenderMime.IRendererFactory = {
  // safe: the view never inserts kernel text as markup, so untrusted notebooks may show it
  safe: true,
  mimeTypes: [MIME_TYPE],
  // before image/svg+xml (the static Graphviz picture in the same bundle)
  defaultRank: 20,
  createRenderer: () => new GraphView()
};

const extension: IRenderMime.IExtension = {
  id: 'tfteach:graph-renderer',
  rendererFactory,
  rank: 20,
  dataType: 'json',
  fileTypes: [],
  documentWidgetFactoryOptions: []
};

export default extension;
