package dev.irdmaemu.cm.rping;

import dev.irdmaemu.driver.verbs.PostStatus;
import java.util.ArrayList;
import java.util.List;

/** An rping side's QP and CM as a test scripts them: every call recorded, each post answered with {@link #answer}. */
final class ScriptedVerbs implements RpingVerbs {
    final List<String> calls = new ArrayList<>();
    PostStatus answer = PostStatus.OK;
    boolean released;

    @Override
    public PostStatus postRecv() {
        calls.add("recv");
        return answer;
    }

    @Override
    public PostStatus postSend() {
        calls.add("send");
        return answer;
    }

    @Override
    public PostStatus postRead(long remoteAddress, int rkey, int length) {
        calls.add("read 0x" + Long.toHexString(remoteAddress) + " rkey 0x" + Integer.toHexString(rkey) + " len "
                + length);
        return answer;
    }

    @Override
    public PostStatus postWrite(long remoteAddress, int rkey, int length) {
        calls.add("write 0x" + Long.toHexString(remoteAddress) + " rkey 0x" + Integer.toHexString(rkey) + " len "
                + length);
        return answer;
    }

    @Override
    public void disconnect(boolean abortive) {
        calls.add(abortive ? "disconnect abortive" : "disconnect");
    }

    @Override
    public void release(Runnable then) {
        calls.add("release");
        released = true;
        then.run();
    }

    /** The calls so far, then forgets them. */
    List<String> take() {
        List<String> c = List.copyOf(calls);
        calls.clear();
        return c;
    }
}
