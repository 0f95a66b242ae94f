import sys, subprocess
# FNV-1a 64 of each frame of ffmpeg's yuv420p decode (Y, then U, then V, cropped, rows tight);
# a 4th argument names another pixel format: yuv420p10le hashes 16-bit little-endian samples.
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pix_fmt = sys.argv[4] if len(sys.argv) > 4 else "yuv420p"
raw = subprocess.run(["ffmpeg","-v","error","-i",path,"-f","rawvideo","-pix_fmt",pix_fmt,"-"],capture_output=True,check=True).stdout
size = (w*h + 2*((w+1)//2)*((h+1)//2)) * (2 if pix_fmt.endswith("10le") else 1)
assert len(raw) % size == 0
for i in range(len(raw)//size):
    hsh = 0xcbf29ce484222325
    for b in raw[i*size:(i+1)*size]:
        hsh = ((hsh ^ b) * 0x100000001b3) & 0xffffffffffffffff
    print(f"{hsh:016x}")
