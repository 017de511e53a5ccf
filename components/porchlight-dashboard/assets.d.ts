/** Vite's `?inline` imports: the file's text (uPlot's stylesheet, adopted into the chart's shadow root). */
declare module "*.css?inline" {
  const text: string;
  export default text;
}
