import sys, subprocess
# FNV-1a 64 of each frame of ffmpeg's yuv420p decode (Y, then U, then V, cropped, rows tight)
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
raw = subprocess.run(["ffmpeg","-v","error","-i",path,"-f","rawvideo","-pix_fmt","yuv420p","-"],capture_output=True,check=True).stdout
size = w*h + 2*((w+1)//2)*((h+1)//2)
assert len(raw) % size == 0
for i in range(len(raw)//size):
    hsh = 0xcbf29ce484222325
    for b in raw[i*size:(i+1)*size]:
        hsh = ((hsh ^ b) * 0x100000001b3) & 0xffffffffffffffff
    print(f"{hsh:016x}")
