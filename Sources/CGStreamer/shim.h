#ifndef CHIME_CGSTREAMER_SHIM_H
#define CHIME_CGSTREAMER_SHIM_H

#include <gst/gst.h>

// g_object_set and g_object_get take variable arguments, which Swift cannot pass: one function per property.

static inline void chime_gst_set_uri(GstElement *element, const char *uri) {
    g_object_set(element, "uri", uri, NULL);
}

static inline void chime_gst_set_volume(GstElement *element, double volume) {
    g_object_set(element, "volume", volume, NULL);
}

/// Sends video nowhere: playbin would otherwise look for a video sink for a file that has a picture.
static inline void chime_gst_disable_video(GstElement *playbin) {
    GstElement *sink = gst_element_factory_make("fakesink", NULL);
    if (sink != NULL) g_object_set(playbin, "video-sink", sink, NULL);
}

/// Plays to `factory` (pulsesink): autoaudiosink would fall back to a sink that plays nowhere when no audio server
/// answers, and a sound that cannot be heard would count as played. Returns whether the factory exists.
static inline gboolean chime_gst_use_audio_sink(GstElement *playbin, const char *factory) {
    GstElement *sink = gst_element_factory_make(factory, NULL);
    if (sink == NULL) return FALSE;
    g_object_set(playbin, "audio-sink", sink, NULL);
    return TRUE;
}

static inline gboolean chime_gst_rewind(GstElement *element) {
    return gst_element_seek_simple(element, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_KEY_UNIT, 0);
}

static inline GstMessageType chime_gst_message_type(GstMessage *message) {
    return GST_MESSAGE_TYPE(message);
}

#endif
