/** Where the local runtime listens: written to .local/endpoints.json and served to the demo page. */
export interface LocalEndpoints {
  http: string;
  ws: string;
  events: string;
  eventBusName: string;
}
