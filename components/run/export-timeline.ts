/**
 * The timeline picture as a file: an SVG that looks as it does on the page
 * (its colours come from the page's stylesheet, so they are written into the
 * copy), and a PNG drawn from that SVG at twice its size.
 */
const STYLED_PROPERTIES = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
] as const;

/** Scale of the PNG against the SVG's own size (sharp on a slide or a high-density screen). */
export const PNG_SCALE = 2;

/** A standalone copy of the picture: every style the page's CSS gives it is written on the element. */
export function standaloneSvg(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  originals.forEach((original, index) => {
    const target = copies[index];
    if (!(target instanceof SVGElement)) return;
    const computed = getComputedStyle(original);
    const style = STYLED_PROPERTIES.map((name) => `${name}:${computed.getPropertyValue(name)}`).join(";");
    target.setAttribute("style", style);
    target.removeAttribute("tabindex");
    target.removeAttribute("data-focused");
  });
  // The page's background, so the file reads the same in a light or a dark viewer.
  const background = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", getComputedStyle(svg.closest("section") ?? document.body).backgroundColor);
  copy.insertBefore(background, copy.firstChild);
  return new XMLSerializer().serializeToString(copy);
}

export function downloadTimelineSvg(svg: SVGSVGElement, fileName: string) {
  download(new Blob([standaloneSvg(svg)], { type: "image/svg+xml" }), fileName);
}

export async function downloadTimelinePng(svg: SVGSVGElement, fileName: string) {
  const width = svg.width.baseVal.value;
  const height = svg.height.baseVal.value;
  const source = URL.createObjectURL(new Blob([standaloneSvg(svg)], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = source;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(width * PNG_SCALE);
    canvas.height = Math.round(height * PNG_SCALE);
    const context = canvas.getContext("2d");
    if (!context) throw new Error("this browser cannot draw on a canvas");
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    const png = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
    if (!png) throw new Error("this browser could not encode the PNG");
    download(png, fileName);
  } finally {
    URL.revokeObjectURL(source);
  }
}

function download(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
