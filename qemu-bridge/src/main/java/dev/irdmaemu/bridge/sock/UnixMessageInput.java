package dev.irdmaemu.bridge.sock;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.newsclub.net.unix.AFUNIXSocket;

/**
 * Reading one message of a stream protocol off a UNIX socket, as the vhost-user back-end and the vfio-user server
 * and client do it: a header, then the payload it announces, each read until all its bytes are in or the peer has
 * closed (read(2) on a stream socket answers fewer bytes than asked), and the file descriptors the peer passed with
 * those bytes (SCM_RIGHTS, unix(7); vhost-user.rst's memory regions and eventfds, vfio-user.rst's DMA files and
 * interrupt eventfds), which junixsocket hands over after the read that carried them.
 */
public final class UnixMessageInput {
    private UnixMessageInput() {
    }

    /**
     * Reads {@code len} bytes into {@code buf} at {@code at}, or fewer when the stream ends first. Answers the bytes
     * read: {@code len}, or less at end of stream.
     */
    public static int readFully(InputStream in, byte[] buf, int at, int len) throws IOException {
        int got = 0;
        while (got < len) {
            int n = in.read(buf, at + got, len - got);
            if (n < 0) {
                break;
            }
            got += n;
        }
        return got;
    }

    /** Whether all {@code len} bytes came into {@code buf} at {@code at} before the stream ended. */
    public static boolean readExactly(InputStream in, byte[] buf, int at, int len) throws IOException {
        return readFully(in, buf, at, len) == len;
    }

    /** Adds the descriptors that arrived with the bytes read last on {@code socket} to {@code into}. */
    public static void collectDescriptors(AFUNIXSocket socket, List<FileDescriptor> into) throws IOException {
        FileDescriptor[] got = socket.getReceivedFileDescriptors();
        if (got != null) {
            for (FileDescriptor fd : got) {
                into.add(fd);
            }
        }
    }
}
