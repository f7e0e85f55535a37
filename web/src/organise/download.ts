// Saves text as a file in the browser: a Blob behind an object URL and a
// detached <a download> clicked once (no markup is built from the text).

/** Starts the download of content as filename with the given type. */
export function download(filename: string, contentType: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: contentType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
