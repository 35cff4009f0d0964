//! Small WebP thumbnails of attached previews for the stored chat: the
//! model gets the full image, the saved history only a bounded copy.

use crate::attachments::{
    THUMBNAIL_QUALITIES, ThumbnailFailure, omitted_thumbnail, thumbnail_fits, thumbnail_record, thumbnail_sizes,
};
use crate::dom::document;
use futures::channel::oneshot;
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlImageElement};

async fn decode(data_url: &str) -> Option<HtmlImageElement> {
    let image = HtmlImageElement::new().ok()?;
    let (sender, receiver) = oneshot::channel::<bool>();
    let sender = std::rc::Rc::new(std::cell::RefCell::new(Some(sender)));
    let on_load = {
        let sender = sender.clone();
        Closure::<dyn FnMut()>::new(move || {
            if let Some(s) = sender.borrow_mut().take() {
                let _ = s.send(true);
            }
        })
    };
    let on_error = Closure::<dyn FnMut()>::new(move || {
        if let Some(s) = sender.borrow_mut().take() {
            let _ = s.send(false);
        }
    });
    image.set_onload(Some(on_load.as_ref().unchecked_ref()));
    image.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    image.set_src(data_url);
    let loaded = receiver.await.unwrap_or(false);
    image.set_onload(None);
    image.set_onerror(None);
    loaded.then_some(image)
}

fn draw(image: &HtmlImageElement, width: u32, height: u32) -> Option<HtmlCanvasElement> {
    let canvas: HtmlCanvasElement = document()?.create_element("canvas").ok()?.dyn_into().ok()?;
    canvas.set_width(width);
    canvas.set_height(height);
    let context: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    context
        .draw_image_with_html_image_element_and_dw_and_dh(image, 0.0, 0.0, f64::from(width), f64::from(height))
        .ok()?;
    Some(canvas)
}

/// The stored form of a preview: a thumbnail record, or an `omitted` note.
pub(crate) async fn make(data_url: String) -> Value {
    let lower: String = data_url.chars().take(24).collect::<String>().to_ascii_lowercase();
    if !["png", "jpeg", "webp"]
        .iter()
        .any(|kind| lower.starts_with(&format!("data:image/{kind};base64,")))
    {
        return omitted_thumbnail(ThumbnailFailure::Format);
    }
    let Some(image) = decode(&data_url).await else {
        return omitted_thumbnail(ThumbnailFailure::Decode);
    };
    for (width, height) in thumbnail_sizes(image.natural_width(), image.natural_height()) {
        let Some(canvas) = draw(&image, width, height) else {
            return omitted_thumbnail(ThumbnailFailure::Decode);
        };
        for quality in THUMBNAIL_QUALITIES {
            if let Ok(thumbnail) = canvas
                .to_data_url_with_type_and_encoder_options("image/webp", &wasm_bindgen::JsValue::from_f64(quality))
                && thumbnail_fits(&thumbnail)
            {
                return thumbnail_record(&thumbnail, width, height);
            }
        }
    }
    omitted_thumbnail(ThumbnailFailure::TooLarge)
}
